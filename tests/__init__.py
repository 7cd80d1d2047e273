"""The test suite: one folder per component (see tests/conftest.py); shared helpers at this level."""
