#!/bin/sh
# The play-by-email receiver: LMTP, for the MTA that takes the domain's mail (postfix:
# transport_maps, docs/mail.md), on MAIL_RECEIVER_HOST:MAIL_RECEIVER_PORT. SIGTERM stops it once
# the messages being stored are stored.
set -eu
exec python manage.py mailreceiver --lmtp \
    --host "${MAIL_RECEIVER_HOST:-0.0.0.0}" \
    --port "${MAIL_RECEIVER_PORT:-2525}"
