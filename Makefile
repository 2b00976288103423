# Two commands do all the set-up on a fresh machine:
#   make demo   - create .venv if missing, install kmc, check a violated and a holding
#                 configuration, show kmc's follower-LEO finding, and prove one by k-induction
#   make test   - install and run the test suite
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kmc-installed

.PHONY: install demo test test-slow bench bench-spark gate gate-slow mutation crosscheck conformance proofs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test]'
	$(BIN)/python -m checker.compiled
	touch $(STAMP)

install: $(STAMP)

demo: install
	@echo "== 1. Kafka before 0.11 (hw-truncation): can acks=all + min.insync.replicas=2 lose an acked record?"
	@$(BIN)/kmc check -q --protocol hw-truncation -r 2 --acks all --min-insync-replicas 2 \
	    --max-crashes 2 --property no-acked-loss; code=$$?; echo "(exit code $$code: 1 = violated)"; test $$code -eq 1
	@echo
	@echo "== 2. Kafka 2.1 (kip-320), same settings, 3 replicas: no acknowledged record lost within the bounds"
	@echo "   (a few seconds; a progress line every 5 s; the verdict names the bounds it covers)"
	@$(BIN)/kmc check --protocol kip-320 -r 3 --acks all --min-insync-replicas 2 \
	    --property no-acked-loss; code=$$?; echo "(exit code $$code: 0 = holds within the bounds)"; test $$code -eq 0
	@echo
	@echo "== 3. ... but a re-elected leader can count a follower's LEO from before its truncation (docs/findings.md),"
	@echo "   when a broker may skip a LeaderAndIsr and leaders move freely (kmc's over-approximation;"
	@echo "   with Kafka's per-broker request order it holds: docs/model.md, Leader moves)"
	@$(BIN)/kmc check -q --protocol kip-320 -r 3 --acks all --min-insync-replicas 2 \
	    --rule +unordered-leader-moves --rule -leader-and-isr-in-order \
	    --property committed-consistency | grep -E "VIOLATED|^Step"; code=$${PIPESTATUS[0]}; \
	    echo "(exit code $$code: 1 = violated)"; test $$code -eq 1
	@echo
	@echo "== 4. kmc 0.1's stricter kip-320 (leaders forget follower LEOs on every epoch), 2 replicas:"
	@echo "   prove no acked record is lost, however long the run (z3, 10-30 s; it says what it is doing)"
	@$(BIN)/kmc prove --protocol kip-320 --rule +kmc-0.1 -r 2 --acks all \
	    --min-insync-replicas 2 -p no-acked-loss --strengthen all; code=$$?; \
	    echo "(exit code $$code: 0 = proved within the bounds)"; test $$code -eq 0

test: install
	@echo "Running the test suite: about 18 minutes on 2 cores, a dot per test. Tests that need chromium"
	@echo "(the HTML viewer in a browser), Java (Spark, real Kafka brokers) or Kafka's jars are skipped without"
	@echo "them, and listed with the reason at the end; .ci/run installs them (chromium, openjdk-17-jre-headless,"
	@echo "maven, then python3 -m conformance.jars 4.1)."
	$(BIN)/python -m pytest -q

# The tests make test leaves out: marked slow in code (RF=3 and other large reachable-state checks
# of the z3 library, RF=3 proofs past the first, the RF=3 cross-check rows), and every test
# tests/slow_tests.txt names (over 6 s in a measured make test; bench/slow_tests.py writes it).
# docs/testing.md, "Slow tests"; 289 tests: the 157 listed measured 2,295 s in make test,
# the 132 marked in code were not timed this round)
test-slow: install
	$(BIN)/python -m pytest -q -m slow

# the local engine on three sizes, the simulator, kmc advise on the examples, BMC vs BFS in
# 60 s, then the Spark rows (about 15 minutes)
bench: install
	$(BIN)/python bench/bench.py
	$(BIN)/python bench/simulate_bench.py
	$(BIN)/python bench/advise_bench.py
	$(BIN)/python bench/symbolic_bench.py --rf 2 --seconds 60
	$(BIN)/python bench/symbolic_bench.py --check-library --rf 3
	$(BIN)/python bench/proof_scale.py --bounds 1/2/1,1/3/2
	$(BIN)/python bench/spark_bench.py rf3-r2

# Spark against the compiled engine (needs Java): rf3-r2 on local[2] with the visited set on the
# executors and on the driver, every known-results row, then a 127.0.0.1 standalone cluster with
# one and two workers on about 26 million states (about 30 minutes)
bench-spark: install
	$(BIN)/python bench/spark_bench.py rf3-r2 --visited both
	$(BIN)/python bench/spark_bench.py known-results
	$(BIN)/python bench/spark_bench.py cluster

# Real Kafka brokers (needs Java and Maven; the jars come from Maven Central once, into
# ~/.cache/kmc/kafka): every scenario of docs/conformance.md on Kafka 4.0 and 4.1 with kmc's
# verdict beside the real outcome (acks-all-random: 20 randomised runs per release), then the
# follower-LEO experiment three times on 4.0, 4.1 and 4.4, then 50 bounded random runs per
# release each validated against kmc's model with admitted / not admitted counts (about 30 + 2x20
# minutes on 2 cores; run directories with every node's log and the merged event stream go to
# kmc-runs/)
conformance: install
	$(BIN)/kmc conformance run --kafka-version 4.0 --kafka-version 4.1 --runs 20
	$(BIN)/kmc conformance run follower-leo --kafka-version 4.0 --kafka-version 4.1 --kafka-version 4.4 --repeat 3
	KMC_CONFORMANCE=1 $(BIN)/python -m pytest -q tests/conformance/test_validate_real.py
	$(BIN)/kmc conformance nemesis --kafka-version 4.0 --kafka-version 4.1 --runs 50 --max-states 30000

gate: install
	mkdir -p out
	$(BIN)/kmc gate scenarios/known-results.toml --junit out/known-results.xml --force

# Rows too slow for make test's CI budget (scenarios/slow-results.toml: the 13.5M-state 2.1 RF=3
# HOLDS of issue 25, about 3 to 4 minutes on 2 shared cores)
gate-slow: install
	mkdir -p out
	$(BIN)/kmc gate scenarios/slow-results.toml --junit out/slow-results.xml --force
	KMC_SLOW_ROWS=1 $(BIN)/python -m pytest -q tests/gate/test_mutation.py -k pinned_row

# The rule-mutation check (docs/testing.md): every rule of model/rules.py flipped and every guard
# of model/kernel/guards.py skipped, each against the known-results rows until one notices; prints
# the mutants nobody kills (a few minutes on 2 cores)
mutation: install
	$(BIN)/python -m gate.mutation scenarios/known-results.toml scenarios/slow-results.toml

# The z3 encoding (kmc prove, --engine bmc) against the compiled kernel, action by action, on 100
# sampled reachable states of each small configuration of every rule set the encoding accepts
# (docs/symbolic.md, "How the encoding is checked"; a few minutes; exit 1 on a disagreement)
crosscheck: install
	$(BIN)/python -m checker.symbolic.crosscheck --samples 100

# the results of kmc prove the ledger lists (scenarios/proofs.toml, docs/proofs.md), re-run: each
# row its own kmc prove, stopped at 4x its cost (at least 10 minutes); hours in all. Narrower:
# make proofs PROOFS="--max-minutes 5", or PROOFS="--rows 4.1 --json run.json"
PROOFS ?=
proofs: install
	$(BIN)/python -m commands.proofs $(PROOFS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
