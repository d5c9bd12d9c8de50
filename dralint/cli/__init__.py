"""The ``dralint`` command: click commands and their options, nothing else.

``main`` holds the command group and ``lint``, ``rules``, ``explain``; ``simulate``, ``config``
and ``fix`` hold one command each. Commands parse options, call the layers below (``lint``,
``fix``, ``reporters``, ``checks``), print and choose the exit code; logic that a test or
another command could reuse belongs in those layers instead.
"""
