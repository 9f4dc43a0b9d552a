"""Worker scripts for ``autograd conform --python``: standalone files, run by path.

Each needs only its engine and the standard library, never this package: HIPS
autograd's import name is ``autograd`` too, so it lives in its own environment.
"""
