"""API v1 accounts (``shared/API.md``, "Accounts"): register, token, me, vacations; their
request and answer shapes."""

from __future__ import annotations

from allauth.account import app_settings as allauth_settings
from allauth.account.models import EmailAddress
from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import VACATION_DAYS_PER_YEAR, User, Vacation, validate_timezone
from accounts.usernames import UsernameValidator, normalize
from games.api import tokens
from games.api.serializers import ErrorOut, StrictBooleanField
from games.api.throttling import AnonThrottle, AuthThrottle, UserThrottle
from games.api.views import validated
from games.core import selectors, services
from games.core.errors import Forbidden, Invalid, InvalidCredentials, NotFound


def email_taken(email: str) -> bool:
    return (User.objects.filter(email__iexact=email).exists()
            or EmailAddress.objects.filter(email__iexact=email).exists())


class RegisterIn(serializers.Serializer):
    username = serializers.CharField(max_length=150, validators=[UsernameValidator()])
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=128, write_only=True,
                                     style={"input_type": "password"}, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        value = normalize(value)  # (as the user model stores it)
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
    notify_email = StrictBooleanField(required=False)
    notify_chat_digest = StrictBooleanField(
        required=False, help_text="The daily mail of new table chat messages (sent only while "
                                  "`notify_email` is on too).")

    class Meta:
        model = User
        fields = ["id", "username", "email", "language", "notify_email", "notify_chat_digest",
                  "timezone"]
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


def verification_required() -> bool:
    return allauth_settings.EMAIL_VERIFICATION == allauth_settings.EmailVerificationMethod.MANDATORY


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [AuthThrottle, AnonThrottle]

    @extend_schema(
        operation_id="auth_register", request=RegisterIn,
        responses={201: RegisterOut,
                   400: OpenApiResponse(ErrorOut, description="`invalid`: `fields` says what "
                                        "(a taken username or email, a weak password)")},
        summary="Create an account; a verification mail goes out")
    def post(self, request):
        data = validated(RegisterIn, request.data)
        try:
            with transaction.atomic():
                user = User.objects.create_user(data["username"], data["email"],
                                                data["password"])
                address = EmailAddress.objects.create(user=user, email=user.email,
                                                      primary=True, verified=False)
        except IntegrityError as exc:  # a concurrent registration took the name or address
            raise Invalid({"username": ["A user with that username or email already exists."]}
                          ) from exc
        if allauth_settings.EMAIL_VERIFICATION != allauth_settings.EmailVerificationMethod.NONE:
            address.send_confirmation(request._request, signup=True)
        return Response({"id": user.pk, "username": user.username}, status=201)


class TokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [AuthThrottle, AnonThrottle]

    @extend_schema(
        operation_id="auth_token", request=TokenIn,
        responses={200: TokenOut,
                   400: OpenApiResponse(ErrorOut, description="`invalid_credentials`, or "
                                        "`invalid` (a missing field)"),
                   403: OpenApiResponse(ErrorOut, description="`forbidden`: the email address "
                                        "is not verified yet")},
        summary="Exchange a username (or email) and password for an API token")
    def post(self, request):
        data = validated(TokenIn, request.data)
        user = authenticate(request._request, username=data["username"],
                            password=data["password"])
        if user is None or not user.is_active:
            raise InvalidCredentials()
        if user.blocked_reason():
            raise Forbidden(user.blocked_reason())
        if (verification_required() and not user.is_staff
                and not EmailAddress.objects.filter(user=user, verified=True).exists()):
            raise Forbidden("Confirm your email address first: follow the link in the mail we "
                            "sent when you registered.")
        _row, token = tokens.new_token(user)
        return Response({"token": token})


class MeView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(operation_id="me_retrieve", responses={200: MeSerializer},
                   summary="Your profile and preferences")
    def get(self, request):
        return Response(MeSerializer(request.user).data)

    @extend_schema(operation_id="me_update", request=MeSerializer,
                   responses={200: MeSerializer},
                   summary="Change `language`, `notify_email`, `notify_chat_digest` or "
                           "`timezone`")
    def patch(self, request):
        serializer = MeSerializer(request.user, data=request.data, partial=True)
        if not serializer.is_valid():
            raise Invalid({key: [str(m) for m in value]
                           for key, value in serializer.errors.items()})
        serializer.save()
        return Response(serializer.data)


class VacationsView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(operation_id="me_vacations_list", responses={200: VacationsOut},
                   summary="Your vacations under way and to come")
    def get(self, request):
        today = selectors.today_for(request.user)
        rows = Vacation.objects.filter(user=request.user, end__gte=today)
        return Response({"allowance_per_year": VACATION_DAYS_PER_YEAR,
                         "results": [VacationOut(v).data for v in rows]})

    @extend_schema(
        operation_id="me_vacations_create", request=VacationIn,
        responses={201: VacationOut,
                   400: OpenApiResponse(ErrorOut, description="`invalid`: reversed or past "
                                        "days, an overlap, or more than the yearly allowance")},
        summary="Declare days off: your deadlines extend over them")
    def post(self, request):
        data = validated(VacationIn, request.data)
        vacation = services.declare_vacation(request.user, data["start"], data["end"])
        return Response(VacationOut(vacation).data, status=201)


class VacationDetailView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(
        operation_id="me_vacations_delete", request=None,
        parameters=[OpenApiParameter("id", {"type": "integer", "minimum": 0},
                                     OpenApiParameter.PATH)],
        responses={204: OpenApiResponse(description="cancelled"),
                   400: OpenApiResponse(ErrorOut, description="`invalid`: it has started"),
                   404: OpenApiResponse(ErrorOut, description="`not_found`")},
        summary="Cancel a vacation that has not started")
    def delete(self, request, id):
        services.cancel_vacation(request.user, id)
        return Response(status=204)


class TokenInfoOut(serializers.Serializer):
    id = serializers.CharField(help_text="the token's first characters: enough to tell which")
    created = serializers.DateTimeField()
    current = serializers.BooleanField(help_text="the token this request was made with")


class TokensOut(serializers.Serializer):
    results = TokenInfoOut(many=True)


def _token_out(row: AuthToken, current) -> dict:
    return {"id": row.token_key, "created": selectors.iso(row.created),
            "current": current is not None and getattr(current, "digest", None) == row.digest}


class MyTokensView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(operation_id="me_tokens_list", responses={200: TokensOut},
                   summary="Your API tokens (made by POST auth/token/), newest first")
    def get(self, request):
        rows = AuthToken.objects.filter(user=request.user).order_by("-created", "-digest")
        return Response({"results": [_token_out(row, request.auth) for row in rows]})


class MyTokenView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(
        operation_id="me_tokens_delete", request=None,
        responses={204: OpenApiResponse(description="revoked"),
                   404: OpenApiResponse(ErrorOut, description="`not_found`")},
        summary="Revoke one of your API tokens (by its id, as the list gives it)")
    def delete(self, request, id):
        deleted, _ = AuthToken.objects.filter(user=request.user, token_key=id).delete()
        if not deleted:
            raise NotFound("No such token.")
        return Response(status=204)
