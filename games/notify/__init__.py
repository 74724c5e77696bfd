"""Notifications: the outbox of messages to players, their rendering, delivery by mail,
digests and unsubscribing."""
