"""factory_boy factories and helpers for the API tests."""

from __future__ import annotations

import factory
from allauth.account.models import EmailAddress
from rest_framework.test import APIClient

from accounts.models import User

PASSWORD = "correct-Horse-battery-9"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def verified(self, create, extracted, **kwargs):
        if create:
            self.save()
            EmailAddress.objects.create(user=self, email=self.email, primary=True,
                                        verified=extracted is not False)


_TOKENS: dict[int, str] = {}


def token_for(user: User) -> str:
    """An API token of ``user`` (one per user and test database: made once, then reused while
    it still exists)."""
    from knox.models import AuthToken

    from games.api.tokens import new_token

    token = _TOKENS.get(user.pk)
    if token is None or not AuthToken.objects.filter(user=user, token_key=token[:15]).exists():
        token = _TOKENS[user.pk] = new_token(user)[1]
    return token


def client_for(user: User | None = None) -> APIClient:
    """An API client authenticated with the user's token (anonymous without a user)."""
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client
