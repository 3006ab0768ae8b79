"""Command-line front ends of the algorithm modules (flags and printing only)."""
