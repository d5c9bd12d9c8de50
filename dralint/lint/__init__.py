"""The lint run: stages 4 to 6 (index, checks, diagnostics) and what turns them into a verdict.

``engine`` drives a run: it loads sources and objects, builds the ``context`` index (with
``refs`` resolving references across it), runs the checks of ``registry`` that ``options`` and
the ``catalog`` enable, and attaches rule metadata to their findings. After the run,
``suppress``, ``exemptions`` and ``baseline`` remove what the user silenced, ``score`` and
``gate`` give the verdict, and ``config`` reads ``.dralint.yaml``. This package imports
``k8s``, ``yaml`` and ``diagnostics``; it finds ``dralint.checks`` by name at run time (the
registry's plug-in discovery), never by a static import.
"""
