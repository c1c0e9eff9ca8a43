"""Batch simulation: statistics, sweeps, plots, parallel backends and fast kernels."""
