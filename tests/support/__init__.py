"""Helpers shared by the service tests."""
