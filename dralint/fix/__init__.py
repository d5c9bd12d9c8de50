"""Automatic fixes (``dralint fix``) that keep a manifest's comments and formatting.

Modules, from the bottom up:

* :mod:`dralint.fix.convert` - the resource.k8s.io v1beta1/v1beta2 -> v1 conversion as a pure
  function (``to_v1``) and the comment-keeping mapping edits it is made of;
* :mod:`dralint.fix.document` - a file loaded for editing (ruamel.yaml round trip, or JSON)
  whose untouched lines keep their exact bytes;
* :mod:`dralint.fix.fixers` - one fix per fixable catalog rule;
* :mod:`dralint.fix.runner` - lint, fix, re-lint and keep or reject (``fix_bytes``), and the
  replacement regions for SARIF ``fixes[]`` (``fix_replacements``).

The ``dralint fix`` command itself (options, diff output) is :mod:`dralint.cli.fix`. This
package imports the layers below it (``lint``, ``k8s``, ``yaml``), never ``checks`` or
``reporters``.

This package module imports nothing so that the submodules can import each other freely.
"""
