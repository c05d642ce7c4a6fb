"""Reading a submission file: the layer validation stands on, and calls only downward.

Nothing here knows what a task expects; it turns bytes into something validation can check,
and refuses what cannot be read, naming the problem:

* :mod:`.files`: opening a regular file safely (no links, FIFOs or devices), size caps,
  encodings, NUL bytes, and how messages quote a file's own text;
* :mod:`.csvio`: a CSV's layout (delimiter, quoting, header, preamble, line breaks) and its
  columns read with the size and column caps of :class:`~.csvio.Limits`;
* :mod:`.compressed`: a submission sent zipped or gzipped, unpacked within the same caps.

No module here imports :mod:`tambench.validation` or anything above it.
"""
