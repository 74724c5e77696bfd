"""API v1 account shapes: registration, token login, the profile and its preferences."""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from .models import User, validate_timezone


def email_taken(email: str) -> bool:
    from allauth.account.models import EmailAddress

    return (User.objects.filter(email__iexact=email).exists()
            or EmailAddress.objects.filter(email__iexact=email).exists())


class RegisterIn(serializers.Serializer):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, write_only=True,
                                     style={"input_type": "password"}, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("A user with that username already exists.")
        return value

    def validate_email(self, value: str) -> str:
        value = User.objects.normalize_email(value).lower()
        if email_taken(value):
            raise serializers.ValidationError("An account with this email address already "
                                              "exists.")
        return value

    def validate(self, attrs):
        candidate = User(username=attrs["username"], email=attrs["email"])
        try:
            password_validation.validate_password(attrs["password"], user=candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from exc
        return attrs


class RegisterOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class TokenIn(serializers.Serializer):
    username = serializers.CharField(max_length=254)
    password = serializers.CharField(max_length=128, trim_whitespace=False,
                                     style={"input_type": "password"})


class TokenOut(serializers.Serializer):
    token = serializers.CharField()


class MeSerializer(serializers.ModelSerializer):
    timezone = serializers.CharField(max_length=64, validators=[validate_timezone],
                                     required=False)

    class Meta:
        model = User
        fields = ["id", "username", "email", "language", "notify_email", "timezone"]
        read_only_fields = ["id", "username", "email"]
        extra_kwargs = {"email": {"allow_null": True}}



class VacationIn(serializers.Serializer):
    start = serializers.DateField(help_text="First day off (in your time zone).")
    end = serializers.DateField(help_text="Last day off, included.")


class VacationOut(serializers.Serializer):
    id = serializers.IntegerField()
    start = serializers.DateField()
    end = serializers.DateField()
    days = serializers.IntegerField()


class VacationsOut(serializers.Serializer):
    allowance_per_year = serializers.IntegerField()
    results = VacationOut(many=True)
