"""Webhooks: users' endpoints, the outbox of deliveries, and the HTTP part (which URLs may be
posted to, the signature, the post)."""
