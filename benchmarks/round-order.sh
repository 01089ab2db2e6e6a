# Sourced by the benchmark scripts. round_order COUNT ROUND: the cases of a round in an order of its own, the same for
# a given round so that a run can be repeated. Rotating one order gives each case the same predecessor, and a case
# that follows a heavy one pays for what the kernel does after it (the memory it freed, the files it closed): measured
# at 10 ms on a 35 ms load.
round_order() { shuf -i "0-$(($1 - 1))" --random-source=<(yes "$2"); }
