"""Exact cooperative optimum of the Simple Bidding Game by branch and bound over reach sets.

The game is Definition 2 of Tian, Gong & Jiang, "Joint Policy Search for Multi-agent
Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495 (our
`ospiel_team/games/simple_bidding.py`). Finding an optimal joint strategy of a common-payoff
game is NP-hard in general (Chu & Halpern, "On the NP-completeness of finding an optimal
strategy in games with common payoffs", IJGT 2001); this module exploits the structure of this
one game instead of the generic MIP of `coop_optimum`.

Formulation (exact, for deterministic joint strategies, which suffice: the objective is linear).
Bids are public and a pure strategy maps (own card, public bids) to an action, so the deals
reaching a public node form a rectangle A x B (the cards of the player to move, the other's).
The payoff depends only on the final contract and s1 + s2, so the subgame below a public node
depends only on (last bid b, A, B), not on who moves or how the node was reached. Its optimum
(summed over the deals in A x B, each deal weight 1) is

    W(b, A, B) = max over partitions of A into A_pass, A_c (bids c > b) of
                 sum_{a in A_pass} 2^b |{y in B: a + y >= 2^b}| + sum_c W(c, B, A_c),

with no Pass at the root (b = -1, A = B = all cards; the first bid is compulsory) and only Pass
after the top bid. The optimum of the game is W(-1, N, N) / N^2.

Three facts make the recursion tractable (all exact, no relaxation of the game):
* Card classes. Two cards a, a' of the mover are equivalent at (b, A, B) when
  [a + y >= 2^c] = [a' + y >= 2^c] for every y in B and every contract c >= b. Given any joint
  strategy, letting every card of a class play the plan of its best member (the partner's
  strategy unchanged) does not lower the value, so classes are assigned as a whole.
* Canonical subgames. W(b, A, B) depends only on the class sizes of both sides and on, for each
  contract c >= b and each pair of classes, whether their sum reaches 2^c: subgames with the
  same such structure are memoised once (for example A + k, B - k).
* Bounds. W is subadditive in the mover's set (W(c, B, X u Y) <= W(c, B, X) + W(c, B, Y): the
  restriction of a strategy is a strategy), so a partial assignment is bounded by the values of
  the groups so far plus, for each unassigned class, its value when the partner knows its card
  (the best contract >= the current one per deal). Children are evaluated against a threshold
  (the value they need to matter to the parent): below it only an upper bound is computed and
  memoised (fail-hard alpha pruning), above it the exact value.

Two implementations of the same recursion: a pure-Python one (`backend="python"`, small sizes,
the reference the tests compare against) and a C kernel (`backend="c"`, compiled with the
system C compiler on first use into the user's cache directory and loaded with ctypes; the
default when a compiler is found). The C kernel identifies a canonical subgame by two
independent 64-bit hashes of its key (a wrong merge needs both to collide: probability about
n^2 / 2^129 for n subgames); the Python reference compares the keys themselves.
"""

from __future__ import annotations

import ctypes
import dataclasses
import time
from typing import Dict, List, Optional, Tuple

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team import native
from ospiel_team.games import simple_bidding as sb_game

MAX_SIZE = 29  # the C kernel packs both card sets of a subgame into one 64-bit word
BACKENDS = ("auto", "c", "python")


@dataclasses.dataclass
class BiddingOptimum:
  """The exact optimum of simple_bidding(size) and an optimal joint pure strategy."""
  size: int
  total: int  # sum over the size^2 deals of the common payoff (an integer)
  value: float  # total / size^2: the expected common payoff (per member)
  proven_optimal: bool  # False when `lower_bound` was not beaten: then value = lower_bound
  strategy: Optional[Dict[Tuple[int, ...], Dict[int, int]]]  # public bids -> card -> action
  seconds: float
  states: int  # canonical subgames solved (including re-solves with a lower threshold)
  backend: str

  def summary(self) -> Dict:
    return dict(size=self.size, total=self.total, value=self.value,
                proven_optimal=self.proven_optimal, seconds=round(self.seconds, 3),
                states=self.states, backend=self.backend)


def _num_bids(size: int) -> int:
  return sb_game.num_bids(size)


def _check_size(size) -> int:
  if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
    raise ValueError(f"size must be an int, got size={size!r}")
  size = int(size)
  if not 2 <= size <= MAX_SIZE:
    raise ValueError(f"size must be in [2, {MAX_SIZE}], got size={size}")
  return size


class _PythonSolver:
  """The recursion of the module docstring in pure Python (exact canonical keys)."""

  def __init__(self, size: int):
    self.n = size
    self.k = _num_bids(size)
    self.bid = [1 << i for i in range(self.k)]
    self.memo: Dict[tuple, Tuple[int, bool]] = {}
    self.states = 0

  def _cards(self, mask: int) -> List[int]:
    return [i for i in range(self.n) if mask >> i & 1]

  def _count(self, mask: int, threshold: int) -> int:
    return sum(1 for y in self._cards(mask) if y >= threshold)

  def pass_value(self, b: int, a: int, other: int) -> int:
    return self.bid[b] * self._count(other, self.bid[b] - a)

  def known_card_value(self, c: int, a: int, other: int) -> int:
    """Card a's deals with `other` when the partner knows a: the best contract >= c each."""
    total = 0
    for y in self._cards(other):
      best = 0
      for d in range(c, self.k):
        if a + y >= self.bid[d]:
          best = self.bid[d]
      total += best
    return total

  def classes(self, b: int, mover: int, other: int) -> List[int]:
    lo = max(b, 0)
    out: Dict[tuple, int] = {}
    for a in self._cards(mover):
      sig = tuple(self._count(other, self.bid[c] - a) for c in range(lo, self.k))
      out[sig] = out.get(sig, 0) | (1 << a)
    return list(out.values())

  def key(self, b: int, mover: int, other: int) -> tuple:
    ca = sorted(self.classes(b, mover, other), key=lambda m: (m & -m))
    cb = sorted(self.classes(b, other, mover), key=lambda m: (m & -m))
    ra = [(m & -m).bit_length() - 1 for m in ca]
    rb = [(m & -m).bit_length() - 1 for m in cb]
    lo = max(b, 0)
    stairs = tuple(tuple(sum(1 for y in rb if a + y >= self.bid[c]) for a in ra)
                   for c in range(lo, self.k))
    return (b, tuple(bin(m).count("1") for m in ca), tuple(bin(m).count("1") for m in cb),
            stairs)

  def value(self, b: int, mover: int, other: int, threshold: int = -1) -> int:
    """W(b, mover, other) if it exceeds `threshold`, else an upper bound <= threshold."""
    if mover == 0 or other == 0:
      return 0
    if b == self.k - 1:
      return sum(self.pass_value(b, a, other) for a in self._cards(mover))
    if b == self.k - 2:
      return sum(max(self.pass_value(b, a, other), self.pass_value(b + 1, a, other))
                 for a in self._cards(mover))
    key = self.key(b, mover, other)
    hit = self.memo.get(key)
    if hit is not None and (hit[1] or hit[0] <= threshold):
      return hit[0]
    self.states += 1
    best, _ = self.partition(b, mover, other, threshold)
    if best > threshold:
      self.memo[key] = (best, True)
      return best
    self.memo[key] = (threshold, False)
    return threshold

  def partition(self, b: int, mover: int, other: int, lower: int):
    """(value, groups) of the best assignment worth more than `lower`, else (lower, None)."""
    k = self.k
    acts = ([-1] if b >= 0 else []) + list(range(b + 1, k))
    cls = self.classes(b, mover, other)
    opt, passc = [], []
    for m in cls:
      o = p = 0
      for a in self._cards(m):
        pv = self.pass_value(b, a, other) if b >= 0 else 0
        o += max([pv] + [self.known_card_value(c, a, other) for c in range(b + 1, k)])
        p += pv
      opt.append(o)
      passc.append(p)
    order = sorted(range(len(cls)), key=lambda i: -opt[i])  # stable, like the C kernel
    cls = [cls[i] for i in order]
    opt = [opt[i] for i in order]
    passc = [passc[i] for i in order]
    suffix = [0] * (len(cls) + 1)
    for i in range(len(cls) - 1, -1, -1):
      suffix[i] = suffix[i + 1] + opt[i]
    groups = [0] * k
    gval = [0] * k
    state = {"best": lower, "groups": None}

    def dfs(i: int, passsum: int) -> None:
      cur = passsum + sum(gval)
      if i == len(cls):
        if cur > state["best"]:
          state["best"], state["groups"] = cur, list(groups)
        return
      if cur + suffix[i] <= state["best"]:
        return
      m = cls[i]
      cands = []
      for c in acts:
        if c < 0:
          cands.append((cur + passc[i], c, 0))
        else:
          th = state["best"] - (cur - gval[c]) - suffix[i + 1]
          nv = self.value(c, other, groups[c] | m, th)
          cands.append((cur - gval[c] + nv if nv > th else None, c, nv))
      cands = [t for t in cands if t[0] is not None]
      cands.sort(key=lambda t: -t[0])  # stable
      for tot, c, nv in cands:
        if tot + suffix[i + 1] <= state["best"]:
          break
        if c < 0:
          dfs(i + 1, passsum + passc[i])
        else:
          old = groups[c], gval[c]
          groups[c] |= m
          gval[c] = nv
          dfs(i + 1, passsum)
          groups[c], gval[c] = old

    dfs(0, 0)
    return state["best"], state["groups"]


_C_SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
typedef uint32_t u32; typedef uint64_t u64; typedef int64_t i64;
static int N, K; static u32 FULL; static i64 BID[8];
static u64 *hkeys, *hkeys2; static i64 *hvals; static unsigned char *hexact;
static u64 hmask, hcount; static i64 nstates; static int full_error;
static inline u32 ab(int t){ if(t<=0) return FULL; if(t>=N) return 0; return (FULL>>t)<<t; }
static inline int pc(u32 m){ return __builtin_popcount(m); }
static inline i64 passv(int b,int a,u32 B){ return BID[b]*pc(B&ab((int)BID[b]-a)); }
static i64 known(int c,int a,u32 B){ i64 s=0; for(int d=c;d<K;d++){
  u32 hi=ab((int)BID[d]-a)&~(d+1<K?ab((int)BID[d+1]-a):0); s+=BID[d]*pc(B&hi);} return s; }
/* canonical key: class sizes of both sides and the staircase of each contract, hashed into
   two independent 64-bit words (both must match). */
static void ckey(int b,u32 A,u32 B,u64*k1,u64*k2){
  int lo=b<0?0:b; unsigned char buf[256]; int n=0; buf[n++]=(unsigned char)(b+1);
  int ra[32],wa[32],na=0,rb[32],wb[32],nb=0; u32 last=0xffffffffu;
  for(int a=0;a<N;a++) if(A>>a&1){ u32 s=0; for(int c=lo;c<K;c++) s=s*33+pc(B&ab((int)BID[c]-a));
    if(na&&s==last) wa[na-1]++; else { ra[na]=a; wa[na]=1; na++; last=s; } }
  last=0xffffffffu;
  for(int y=0;y<N;y++) if(B>>y&1){ u32 s=0; for(int c=lo;c<K;c++) s=s*33+pc(A&ab((int)BID[c]-y));
    if(nb&&s==last) wb[nb-1]++; else { rb[nb]=y; wb[nb]=1; nb++; last=s; } }
  buf[n++]=na; buf[n++]=nb; for(int i=0;i<na;i++) buf[n++]=wa[i]; for(int j=0;j<nb;j++) buf[n++]=wb[j];
  for(int c=lo;c<K;c++) for(int i=0;i<na;i++){ int cnt=0; for(int j=0;j<nb;j++) if(ra[i]+rb[j]>=BID[c]) cnt++; buf[n++]=cnt; }
  u64 h1=1469598103934665603ULL, h2=0x9E3779B97F4A7C15ULL;
  for(int i=0;i<n;i++){ h1^=buf[i]; h1*=1099511628211ULL; h2=(h2^buf[i])*0xff51afd7ed558ccdULL; h2^=h2>>29; }
  *k1=h1|1; *k2=h2;
}
static inline u64 hh(u64 k){ k^=k>>33; k*=0xff51afd7ed558ccdULL; k^=k>>33; k*=0xc4ceb9fe1a85ec53ULL; k^=k>>33; return k; }
static int hget(u64 k,u64 k2,i64*v,int*ex){ u64 i=hh(k)&hmask; while(hkeys[i]){
  if(hkeys[i]==k&&hkeys2[i]==k2){*v=hvals[i];*ex=hexact[i];return 1;} i=(i+1)&hmask;} return 0; }
static void hput(u64 k,u64 k2,i64 v,int ex){ if(hcount*10>hmask*7){ full_error=1; return; }
  u64 i=hh(k)&hmask; while(hkeys[i]){ if(hkeys[i]==k&&hkeys2[i]==k2){hvals[i]=v;hexact[i]=ex;return;}
  i=(i+1)&hmask;} hkeys[i]=k; hkeys2[i]=k2; hvals[i]=v; hexact[i]=ex; hcount++; }
static i64 W(int b,u32 A,u32 B,i64 th);
typedef struct { int b; u32 B; int ncls; u32 cls[32]; i64 opt[32]; i64 suffix[33]; i64 passc[32];
  int acts[8]; int nacts; u32 groups[8]; i64 gval[8]; i64 best; u32 bestgroups[8]; int found; } Node;
static void dfs(Node*nd,int i,i64 passsum){
  if(full_error) return;
  i64 cur=passsum; for(int c=0;c<K;c++) cur+=nd->gval[c];
  if(i==nd->ncls){ if(cur>nd->best){ nd->best=cur; nd->found=1; for(int c=0;c<K;c++) nd->bestgroups[c]=nd->groups[c]; } return; }
  if(cur+nd->suffix[i]<=nd->best) return;
  u32 m=nd->cls[i]; i64 tot[8]; i64 nv[8]; int ord[8]; int na=nd->nacts;
  for(int j=0;j<na;j++){ int c=nd->acts[j]; ord[j]=j;
    if(c<0){ tot[j]=cur+nd->passc[i]; nv[j]=0; }
    else { i64 th=nd->best-(cur-nd->gval[c])-nd->suffix[i+1]; nv[j]=W(c,nd->B,nd->groups[c]|m,th);
      tot[j]=cur-nd->gval[c]+nv[j]; if(nv[j]<=th) tot[j]=-(1LL<<60); } }
  for(int x=1;x<na;x++){ int y=ord[x],z=x; while(z>0&&tot[ord[z-1]]<tot[y]){ord[z]=ord[z-1];z--;} ord[z]=y; }
  for(int x=0;x<na;x++){ int j=ord[x]; if(tot[j]+nd->suffix[i+1]<=nd->best) break; int c=nd->acts[j];
    if(c<0) dfs(nd,i+1,passsum+nd->passc[i]);
    else { u32 og=nd->groups[c]; i64 ov=nd->gval[c]; nd->groups[c]|=m; nd->gval[c]=nv[j];
      dfs(nd,i+1,passsum); nd->groups[c]=og; nd->gval[c]=ov; } }
}
static void setup_node(Node*nd,int b,u32 A,u32 B){
  nd->b=b; nd->B=B; nd->ncls=0; int lo=b<0?0:b; u32 sig[32]; int ns=0;
  for(int a=0;a<N;a++) if(A>>a&1){
    u32 s=0; for(int c=lo;c<K;c++) s=s*33+pc(B&ab((int)BID[c]-a));
    int f=-1; for(int j=0;j<ns;j++) if(sig[j]==s){f=j;break;}
    if(f<0){ sig[ns]=s; nd->cls[ns]=0; nd->opt[ns]=0; nd->passc[ns]=0; f=ns++; }
    nd->cls[f]|=1u<<a;
    i64 bestv=b>=0?passv(b,a,B):0; for(int c=b+1;c<K;c++){ i64 v=known(c,a,B); if(v>bestv) bestv=v; }
    nd->opt[f]+=bestv; if(b>=0) nd->passc[f]+=passv(b,a,B);
  }
  nd->ncls=ns;
  for(int x=1;x<ns;x++){ int z=x; while(z>0&&nd->opt[z-1]<nd->opt[z]){ u32 t=nd->cls[z];nd->cls[z]=nd->cls[z-1];nd->cls[z-1]=t;
    i64 q=nd->opt[z];nd->opt[z]=nd->opt[z-1];nd->opt[z-1]=q; q=nd->passc[z];nd->passc[z]=nd->passc[z-1];nd->passc[z-1]=q; z--; } }
  nd->suffix[ns]=0; for(int x=ns-1;x>=0;x--) nd->suffix[x]=nd->suffix[x+1]+nd->opt[x];
  nd->nacts=0; if(b>=0) nd->acts[nd->nacts++]=-1; for(int c=b+1;c<K;c++) nd->acts[nd->nacts++]=c;
  for(int c=0;c<K;c++){ nd->groups[c]=0; nd->gval[c]=0; nd->bestgroups[c]=0; }
  nd->best=-1; nd->found=0;
}
static i64 W(int b,u32 A,u32 B,i64 th){
  if(!A||!B) return 0;
  if(b==K-1){ i64 s=0; for(int a=0;a<N;a++) if(A>>a&1) s+=passv(b,a,B); return s; }
  if(b==K-2){ i64 s=0; for(int a=0;a<N;a++) if(A>>a&1){ i64 p=passv(b,a,B),q=passv(K-1,a,B); s+=p>q?p:q;} return s; }
  u64 k,k2; ckey(b,A,B,&k,&k2); i64 v; int ex; if(hget(k,k2,&v,&ex)){ if(ex||v<=th) return v; }
  nstates++;
  Node nd; setup_node(&nd,b,A,B); nd.best=th; dfs(&nd,0,0);
  if(nd.best>th){ hput(k,k2,nd.best,1); return nd.best; }
  hput(k,k2,th,0); return th;
}
int sb_init(int n,int logslots){ N=n; K=0; while((1<<K)<n) K++; K+=1; FULL=(1u<<n)-1;
  for(int i=0;i<K;i++) BID[i]=1LL<<i; hmask=(1ULL<<logslots)-1;
  free(hkeys); free(hkeys2); free(hvals); free(hexact);
  hkeys=calloc(hmask+1,8); hkeys2=malloc((hmask+1)*8); hvals=malloc((hmask+1)*8); hexact=malloc(hmask+1);
  hcount=0; nstates=0; full_error=0; return (hkeys&&hkeys2&&hvals&&hexact)?K:-1; }
void sb_free(void){ free(hkeys); free(hkeys2); free(hvals); free(hexact); hkeys=hkeys2=0; hvals=0; hexact=0; }
i64 sb_value(int b,u32 A,u32 B){ return W(b,A,B,-1); }
/* best assignment at (b,A,B) worth more than lb; returns 1 and fills groups[c] if found. */
int sb_partition(int b,u32 A,u32 B,i64 lb,i64*value,u32*groups){ Node nd; setup_node(&nd,b,A,B); nd.best=lb;
  dfs(&nd,0,0); *value=nd.best; for(int c=0;c<K;c++) groups[c]=nd.bestgroups[c]; return nd.found; }
i64 sb_states(void){ return nstates; }
int sb_table_full(void){ return full_error; }
"""


_KERNEL = None


def _load_kernel():
  """The compiled C kernel (ctypes), or None when no C compiler is available."""
  global _KERNEL
  if _KERNEL is not None:
    return _KERNEL
  lib = native.compile_c("simple_bidding_bb", _C_SOURCE)
  if lib is None:
    return None
  lib.sb_init.restype = ctypes.c_int
  lib.sb_init.argtypes = [ctypes.c_int, ctypes.c_int]
  lib.sb_value.restype = ctypes.c_int64
  lib.sb_value.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32]
  lib.sb_partition.restype = ctypes.c_int
  lib.sb_partition.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int64,
                               ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_uint32)]
  lib.sb_states.restype = ctypes.c_int64
  lib.sb_table_full.restype = ctypes.c_int
  _KERNEL = lib
  return lib


class _CSolver:
  """The same recursion through the C kernel (one solver at a time per process)."""

  def __init__(self, size: int, hash_log2: int):
    self.lib = _load_kernel()
    if self.lib is None:
      raise RuntimeError("backend='c' needs a C compiler (cc or gcc, or $CC); none worked")
    self.k = self.lib.sb_init(size, hash_log2)
    if self.k < 0:
      raise MemoryError(f"cannot allocate the memo table of 2^{hash_log2} slots")

  @property
  def states(self) -> int:
    return int(self.lib.sb_states())

  def _check(self):
    if self.lib.sb_table_full():
      raise MemoryError("the memo table is 70% full; rerun with a larger hash_log2")

  def value(self, b: int, mover: int, other: int, threshold: int = -1) -> int:
    del threshold  # exact values only through this entry point
    v = int(self.lib.sb_value(b, mover, other))
    self._check()
    return v

  def partition(self, b: int, mover: int, other: int, lower: int):
    value = ctypes.c_int64(0)
    groups = (ctypes.c_uint32 * 8)()
    found = self.lib.sb_partition(b, mover, other, lower, ctypes.byref(value), groups)
    self._check()
    if not found:
      return lower, None
    return int(value.value), [int(groups[c]) for c in range(self.k)]


def _strategy(solver, size: int, k: int, root_groups: List[int]):
  """Public bid sequence -> {card: action} (action: 0 Pass, j + 1 bid 2^j) on the play path."""
  full = (1 << size) - 1
  strategy: Dict[Tuple[int, ...], Dict[int, int]] = {}

  def record(seq, mover, groups):
    acts = {}
    passing = mover
    for c, g in enumerate(groups):
      passing &= ~g
      for a in range(size):
        if g >> a & 1:
          acts[a] = c + 1
    for a in range(size):
      if passing >> a & 1:
        acts[a] = sb_game.PASS
    strategy[seq] = acts

  def expand(seq, b, mover, other, groups):
    record(seq, mover, groups)
    for c, g in enumerate(groups):
      if g and c < k - 1:
        child = seq + (c + 1,)
        target = solver.value(c, other, g)
        _, sub = solver.partition(c, other, g, target - 1)
        expand(child, c, other, g, sub)
      elif g:
        record(seq + (c + 1,), other, [0] * k)  # after the top bid only Pass is legal

  expand((), -1, full, full, root_groups)
  return strategy


def solve(size: int, lower_bound: Optional[int] = None, backend: str = "auto",
          hash_log2: int = 26) -> BiddingOptimum:
  """The exact optimum of simple_bidding(size) and an optimal joint pure strategy.

  Args:
    size: N of Definition 2 (JPS paper, arXiv:2008.06495); 2 <= size <= 29.
    lower_bound: a total (sum over the N^2 deals of the common payoff) known to be achievable,
      e.g. by a strategy found by search. The root then only looks for strategies worth more:
      if none exists the result has `proven_optimal=False`, `total=lower_bound`, no strategy,
      and proves that no joint strategy is worth more than `lower_bound`. None: no bound.
    backend: "c" (the compiled kernel), "python" (pure Python; small sizes), or "auto" (C when a
      compiler is available).
    hash_log2: log2 of the C kernel's memo slots (25 bytes each; 26 -> 1.7 GB at most).

  Returns:
    A `BiddingOptimum`; `strategy` maps every public bid sequence on which some deal plays to
    the action of each card of the player to move there.
  """
  size = _check_size(size)
  if backend not in BACKENDS:
    raise ValueError(f"unknown backend {backend!r}; use one of {BACKENDS}")
  if lower_bound is not None and (isinstance(lower_bound, bool) or lower_bound < 0):
    raise ValueError(f"lower_bound must be a non-negative int total, got {lower_bound!r}")
  if not 10 <= int(hash_log2) <= 34:
    raise ValueError(f"hash_log2 must be in [10, 34], got {hash_log2}")
  start = time.perf_counter()
  if backend == "auto":
    backend = "c" if _load_kernel() is not None else "python"
  solver = _CSolver(size, int(hash_log2)) if backend == "c" else _PythonSolver(size)
  k = _num_bids(size)
  full = (1 << size) - 1
  lower = -1 if lower_bound is None else int(lower_bound)
  total, groups = solver.partition(-1, full, full, lower)
  if groups is None:
    return BiddingOptimum(size=size, total=int(lower_bound), value=lower_bound / size ** 2,
                          proven_optimal=False, strategy=None,
                          seconds=time.perf_counter() - start, states=solver.states,
                          backend=backend)
  strategy = _strategy(solver, size, k, groups)
  return BiddingOptimum(size=size, total=total, value=total / size ** 2, proven_optimal=True,
                        strategy=strategy, seconds=time.perf_counter() - start,
                        states=solver.states, backend=backend)


def split_upper_bound(size: int, parts: List[List[int]], backend: str = "auto",
                      hash_log2: int = 26) -> Tuple[int, List[int]]:
  """An upper bound on the optimum of simple_bidding(size) from a partition of P1's cards.

  If P2 were told which part P1's card lies in, the team could only do better; and then the
  game splits into independent games, one per part (P1's card uniform in the part, P2's in all
  cards). So for every partition L_1, ..., L_m of the cards,
      OPT_total <= sum_i W(-1, L_i, all cards)
  (the restriction of any joint strategy to the deals L_i x all is a strategy of game i). The
  coarser the partition, the tighter the bound; one part is the exact optimum.

  Args:
    size: N of the game (2..29).
    parts: disjoint non-empty lists of cards covering 0..size-1.
    backend: as in `solve`.
    hash_log2: as in `solve`.

  Returns:
    (bound on the total over the size^2 deals, the exact optimum of each part's game).
  """
  size = _check_size(size)
  if backend not in BACKENDS:
    raise ValueError(f"unknown backend {backend!r}; use one of {BACKENDS}")
  seen: List[int] = []
  for part in parts:
    if not part:
      raise ValueError(f"parts must be non-empty, got {parts}")
    for c in part:
      if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < size:
        raise ValueError(f"card {c!r} is not in [0, {size})")
    seen.extend(int(c) for c in part)
  if sorted(seen) != list(range(size)):
    raise ValueError(f"parts must partition 0..{size - 1} exactly once, got {parts}")
  if backend == "auto":
    backend = "c" if _load_kernel() is not None else "python"
  solver = _CSolver(size, int(hash_log2)) if backend == "c" else _PythonSolver(size)
  full = (1 << size) - 1
  values = [solver.value(-1, sum(1 << int(c) for c in part), full) for part in parts]
  return sum(values), values


def strategy_action(strategy: Dict[Tuple[int, ...], Dict[int, int]], card: int,
                    bids: Tuple[int, ...], legal: List[int]) -> int:
  """The strategy's action for `card` after public `bids`; off the play path the lowest legal
  action (any action there leaves the value unchanged)."""
  acts = strategy.get(tuple(bids))
  if acts is not None and card in acts:
    return acts[card]
  return min(legal)


def tabular_policy(game: pyspiel.Game,
                   strategy: Dict[Tuple[int, ...], Dict[int, int]]) -> policy_lib.TabularPolicy:
  """The joint pure strategy as an OpenSpiel `TabularPolicy` of `game` (simple_bidding)."""
  pol = policy_lib.TabularPolicy(game)
  for state in pol.states:
    player = state.current_player()
    hist = state.history()
    card = hist[player]
    bids = tuple(hist[2:])
    legal = state.legal_actions()
    a = strategy_action(strategy, card, bids, legal)
    if a not in legal:
      raise ValueError(f"strategy plays illegal action {a} at {state}")
    row = pol.state_index(state)
    pol.action_probability_array[row] = 0.0
    pol.action_probability_array[row, a] = 1.0
  return pol
