# The Job controller's own code as the oracle (test/oracle, its own go.mod). Included by the
# root Makefile.
#
#   make oracle-ci   copy the v1.37.2 Job controller's files from the module cache, then play the
#                    kept regressions and ORACLE_CI_CASES random Indexed Jobs (fixed seed) with
#                    both the controller and simulate, and check status's statements about the
#                    next sync against one syncJob on the named snapshots and on
#                    ORACLE_CI_SNAPSHOTS random mid-run ones; part of `make check`
#   make oracle      the same with ORACLE_CASES random Jobs and ORACLE_SNAPSHOTS snapshots from
#                    ORACLE_SEED (a longer run)

ORACLE_SEED     ?= 1
ORACLE_CI_CASES ?= 2000
ORACLE_CASES    ?= 5000
ORACLE_CI_SNAPSHOTS ?= 2000
ORACLE_SNAPSHOTS    ?= 20000

.PHONY: oracle-ci oracle oracle-copy

oracle-copy:
	bash test/oracle/copy.sh

oracle-ci: oracle-copy ## Simulate against the Job controller's own code (fixed seed and count)
	cd test/oracle && go test -count=1 -timeout 10m ./... -args -oracle.seed=1 -oracle.cases=$(ORACLE_CI_CASES) -oracle.snapshots=$(ORACLE_CI_SNAPSHOTS)

oracle: oracle-copy ## A longer oracle run: ORACLE_CASES random Jobs, ORACLE_SNAPSHOTS snapshots from ORACLE_SEED
	cd test/oracle && go test -count=1 -timeout 2h -v -run 'TestSimulate|TestStatusNextSync' ./... -args -oracle.seed=$(ORACLE_SEED) -oracle.cases=$(ORACLE_CASES) -oracle.snapshots=$(ORACLE_SNAPSHOTS)

CHECK_EXTRA += oracle-ci
