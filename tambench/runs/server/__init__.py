"""The validation server: MLE-bench's submission checker, answered from public files.

An agent in an MLE-bench container checks its submission by posting it to
``http://localhost:5000/validate`` (MLE-bench's ``validate_submission.sh`` runs
``curl -X POST -F "file=@submission.csv"``); the server answers ``{"result": "..."}``, and
``GET /health`` answers ``{"status": "running"}``. This package serves those routes with
tambench's verdict (:mod:`tambench.grading.verdict`): grading's own checks against the task's
public reference, never the answers, never a score.

* :mod:`.config`: the listening address (loopback unless asked otherwise) and the limits;
* :mod:`.uploads`: an upload streamed into a private temporary folder, bounded in size and time;
* :mod:`.counts`: validations counted per run in ``<runs dir>/<run>/validations.json``;
* :mod:`.app`: the routes (aiohttp), :mod:`.run`: starting and stopping the server.

aiohttp is an optional dependency (``pip install 'tambench[server]'``): an asyncio server, so a
slow or huge upload holds a connection, not a thread; its multipart reader streams a part in
chunks to wherever the handler writes them; it drops a connection whose request headers do not
arrive in time; and a route's ``Expect: 100-continue`` handler can refuse an upload from its
declared size before the client sends the body.
"""
