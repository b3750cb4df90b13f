"""Policies. Bots reach the server only through :mod:`clients`, like any third-party bot."""
