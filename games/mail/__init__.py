"""Play by email: the commands a mail lists and a player types, the signed reply addresses,
what a mail to a player lists, reading a raw mail, and the ways mail comes in (the SMTP/LMTP
receiver, the providers' webhooks), all handed to one service (:mod:`games.mail.receive`)."""
