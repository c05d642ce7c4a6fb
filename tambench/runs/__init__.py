"""runs: the agent-facing side. Agents run on prepared tasks, sandboxed, limited by the harness,
recorded and resumable; what they see is the task's public data and statement, the validation
server and the model gateway, never the answers; their submissions are then graded.

* :mod:`~tambench.runs.agents`: an agent (a command, or an MLE-bench agent folder);
* :mod:`~tambench.runs.sandbox`: the sandboxes (bubblewrap, docker, podman, none), one
  registry; :mod:`~tambench.runs.inside`: the sandbox's first process;
* :mod:`~tambench.runs.limits` and :mod:`~tambench.runs.cgroup`: the limits and how they hold;
* :mod:`~tambench.runs.server`: the validation server an agent posts its submission to;
* :mod:`~tambench.runs.services`: the validation endpoint and the proxy to allowed hosts;
* :mod:`~tambench.runs.gateway`: the model gateway, a TLS model API served in plain HTTP inside;
* :mod:`~tambench.runs.supervise` and :mod:`~tambench.runs.job`: one run (the instructions an
  agent reads: :func:`~tambench.runs.job.instructions_text`);
* :mod:`~tambench.runs.record`: run.json; :mod:`~tambench.runs.batch`: a batch of runs.
"""

