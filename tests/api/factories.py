"""factory_boy factories and helpers for the API tests."""

from __future__ import annotations

import factory
from allauth.account.models import EmailAddress
from rest_framework.authtoken.models import Token
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


def client_for(user: User | None = None) -> APIClient:
    """An API client authenticated with the user's token (anonymous without a user)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
