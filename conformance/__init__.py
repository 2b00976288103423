"""Real Kafka in the loop: run Apache Kafka 4.x brokers on 127.0.0.1, break them the way kmc's
actions do, observe them, and compare what happens with kmc's verdicts.

One job per module, from the ground up (each imports only modules listed before it):

========================= ===============================================================
``jars``                  the Kafka versions the harness knows, pinned, and their jars
                          (Maven Central through ``kafka/pom.xml``, cached per version under
                          ``~/.cache/kmc/kafka/<version>/lib``); why a run cannot start
``processes``             starting JVMs in their own process groups, stopping them by pid
                          (also on Ctrl-C and after a failed start), the run's time bound
``nodeconfig``            each node's ``server.properties`` and log4j2 file
``cluster``               one KRaft controller and three brokers: format, start, readiness
                          (observations, never fixed sleeps), the interventions (kill -9,
                          SIGTERM, SIGSTOP/SIGCONT, restart, wipe + re-format)
``segments``              the replicas' segment and checkpoint files, read directly
``loglines``              the brokers' and the controller's log lines as typed events
``admin``                 kafka-python's admin client routed to running brokers only:
                          partition state (DescribeTopicPartitions: leader epoch, ISR, ELR,
                          last known ELR), reassignment, elections
``events``                one timestamped event stream per run (JSON lines)
``history``               a real client's history (sends, acks, reads) and a Jepsen-style
                          check of it
``nemesis``               random bounded fault schedules
``kmcside``               kmc's verdict for a scenario's question (``checker.check``)
``scenarios``             the named scenarios of docs/conformance.md
``follower_leo``          the follower-LEO experiment (docs/findings.md)
``replay``                a kmc ITF trace replayed as interventions with observation barriers
``report``                the scenario table as text
``projection``            a run's events as facts of kmc's state, observed or not
``validate``              trace validation: a behaviour of kmc's model matching those facts
``campaign``              bounded random runs on one cluster, each saved and validated
                          (``kmc conformance nemesis``)
========================= ===============================================================

Nothing here knows click; ``commands/conformance.py`` and ``kmc trace run --cluster`` print
what these functions return.
"""
