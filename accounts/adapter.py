"""allauth hooks: a suspended or banned user is told why instead of being logged in."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from django.shortcuts import render


class AccountAdapter(DefaultAccountAdapter):
    def pre_login(self, request, user, **kwargs):
        reason = user.blocked_reason()
        if reason:
            raise ImmediateHttpResponse(render(request, "account/blocked.html",
                                               {"reason": reason}, status=403))
        return super().pre_login(request, user, **kwargs)
