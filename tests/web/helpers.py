"""Shared steps of the page tests."""

from __future__ import annotations

from django.test import Client


def browser(user=None) -> Client:
    """A test client, logged in as ``user`` when one is given."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client
