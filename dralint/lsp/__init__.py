"""``dralint lsp``: the language server. Diagnostics, fixes, hover and CEL completion in the editor.

The server (``server``) speaks the Language Server Protocol through pygls; everything it
answers comes from plain modules beside it that know nothing of the protocol's transport: the
workspace lint (``workspace``), what is known of classes and devices (``devices``), where a
cursor stands in a manifest and its CEL (``cursor``), and the protocol's records made from
dralint's (``convert``).
"""
