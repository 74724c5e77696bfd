"""Web Push (RFC 8030, payloads encrypted per RFC 8291, VAPID per RFC 8292): the devices users
subscribed (:mod:`.subscriptions`) and the post to a push service (:mod:`.service`). What is
pushed, and when, is the outbox's (:mod:`games.notify.pushes`)."""
