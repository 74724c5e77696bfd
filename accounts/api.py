"""API v1 accounts (``shared/API.md``, "Accounts"): register, token, me."""

from __future__ import annotations

from allauth.account import app_settings as allauth_settings
from allauth.account.models import EmailAddress
from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.errors import Forbidden, Invalid, InvalidCredentials, NotFound
from games.api.serializers import ErrorOut
from games.api.throttling import AnonThrottle, AuthThrottle, UserThrottle
from games.api.views import validated

from . import vacations
from .models import VACATION_DAYS_PER_YEAR, User, Vacation
from .serializers import (
    MeSerializer,
    RegisterIn,
    RegisterOut,
    TokenIn,
    TokenOut,
    VacationIn,
    VacationOut,
    VacationsOut,
)


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
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class MeView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(operation_id="me_retrieve", responses={200: MeSerializer},
                   summary="Your profile and preferences")
    def get(self, request):
        return Response(MeSerializer(request.user).data)

    @extend_schema(operation_id="me_update", request=MeSerializer,
                   responses={200: MeSerializer},
                   summary="Change `language`, `notify_email` or `timezone`")
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
        today = vacations.today_for(request.user)
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
        try:
            vacation = vacations.declare(request.user, data["start"], data["end"])
        except vacations.VacationError as exc:
            raise Invalid({exc.field: [exc.message]}, exc.message) from exc
        return Response(VacationOut(vacation).data, status=201)


class VacationDetailView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle]

    @extend_schema(
        operation_id="me_vacations_delete", request=None,
        responses={204: OpenApiResponse(description="cancelled"),
                   400: OpenApiResponse(ErrorOut, description="`invalid`: it has started"),
                   404: OpenApiResponse(ErrorOut, description="`not_found`")},
        summary="Cancel a vacation that has not started")
    def delete(self, request, id):
        try:
            found = vacations.cancel(request.user, id)
        except vacations.VacationError as exc:
            raise Invalid({exc.field: [exc.message]}, exc.message) from exc
        if not found:
            raise NotFound("No such vacation.")
        return Response(status=204)
