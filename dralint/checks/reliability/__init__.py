"""Reliability checks: sizing, images, probes and availability of workloads."""
