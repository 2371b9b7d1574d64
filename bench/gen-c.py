#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A C file for cc1 to chew on (bench/unwind.sh's cc1 workload).

    python3 bench/gen-c.py OUT.c [FUNCTIONS]

FUNCTIONS (default 300) functions with loops, switches and calls, each
calling the one before: gcc -O2's cc1 takes 4-5 s over 300 on the
development VM. The same file every time (a fixed seed).
"""
import random
import sys

TEMPLATE = """int f{i}(int x, struct s *p) {{
  int acc = {i};
  for (int k = 0; k < x; k++) {{
    switch ((k + {i}) % 5) {{
    case 0: acc += k * {m}; break;
    case 1: acc ^= (int)(p->b * {r:.3f}); break;
    case 2: acc -= p->a >> (k & 7); break;
    case 3: memcpy(p->c, "abcdefghijklmno", (k & 15) + 1); acc += p->c[k & 15]; break;
    default: acc = acc * 3 + {a};
    }}
    if (acc > {lim}) acc = f{prev}(acc & 7, p);
  }}
  return acc;
}}
"""


def main():
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(7)
    parts = ["#include <string.h>\nstruct s { int a; double b; char c[16]; };\n"]
    for i in range(n):
        parts.append(TEMPLATE.format(i=i, m=rnd.randint(1, 99), r=rnd.random(), a=rnd.randint(1, 9),
                                     lim=rnd.randint(1000, 99999), prev=max(i - 1, 0)))
    with open(out, "w") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
