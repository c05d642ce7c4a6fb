"""Running agents on tasks: sandboxed, limited by the harness, recorded, resumable.

* :mod:`~tambench.runs.agents`: an agent (a command, or an MLE-bench agent folder);
* :mod:`~tambench.runs.sandbox`: the sandboxes (bubblewrap, docker, podman, none), one
  registry; :mod:`~tambench.runs.inside`: the sandbox's first process;
* :mod:`~tambench.runs.limits` and :mod:`~tambench.runs.cgroup`: the limits and how they hold;
* :mod:`~tambench.runs.services`: the validation endpoint and the proxy to allowed hosts;
* :mod:`~tambench.runs.gateway`: the model gateway, a TLS model API served in plain HTTP inside;
* :mod:`~tambench.runs.supervise` and :mod:`~tambench.runs.job`: one run;
* :mod:`~tambench.runs.record`: run.json; :mod:`~tambench.runs.batch`: a batch of runs.
"""
