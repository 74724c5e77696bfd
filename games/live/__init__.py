"""Live: the event streams (Server-Sent Events) and the push that wakes them when a game
changes."""
