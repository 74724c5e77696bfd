"""The core of the platform: the catalog of games and their kits, the models' write path
(``services``), the reads (``selectors``), deadlines, dispatch to the worker, and the domain
errors. It names no channel: notifications, mail, webhooks and the live push subscribe to what
it records."""
