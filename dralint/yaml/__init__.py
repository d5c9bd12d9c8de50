"""Stage 1 and 2 of a run: sources become documents with positions.

``sources`` finds and reads the files (or standard input) a run names, with its limits and
file-level problems; ``loader`` turns YAML or JSON text into documents of plain Python data
plus a side table of 1-based positions for every key and value, first through ``blockfast``
(a fast reader for machine-written block YAML) and through libyaml for what it declines;
``scalars`` resolves plain scalars for both; ``strict`` finds the YAML 1.2 errors libyaml
accepts; ``plain`` narrows parsed values for typed code. This package knows
nothing about Kubernetes. It imports only :mod:`dralint.diagnostics` (for ``Span``).
"""
