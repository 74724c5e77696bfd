"""A moderator cannot make themselves (or anyone) superuser, nor set a password: the user admin
is read-only to them, whatever they post; they act on accounts through the moderation actions.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from tests.api.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

USERS = "/admin/accounts/user/"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def superuser():
    return get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)


def _snapshot(user) -> dict:
    user = get_user_model().objects.get(pk=user.pk)
    return {"fields": {f.attname: getattr(user, f.attname) for f in user._meta.concrete_fields},
            "groups": sorted(user.groups.values_list("pk", flat=True)),
            "permissions": sorted(user.user_permissions.values_list("pk", flat=True))}


def _change_form_data(superuser, target) -> dict:
    """The change form's fields, as the superuser's page fills them for ``target``."""
    from django.contrib import admin

    model_admin = admin.site._registry[get_user_model()]
    request = RequestFactory().get("/")
    request.user = superuser
    form = model_admin.get_form(request, target)(instance=target)
    import datetime as dt

    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if isinstance(value, dt.datetime):  # a split date and time
            data[f"{name}_0"] = value.date().isoformat()
            data[f"{name}_1"] = value.time().strftime("%H:%M:%S")
        elif isinstance(value, (list, tuple, set)) or name in ("groups", "user_permissions"):
            data[name] = [getattr(v, "pk", v) for v in (value or [])]
        elif isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    return data, form


def test_every_field_of_the_user_admin_is_refused_to_a_moderator(moderator, superuser):
    from django.contrib.auth.models import Group, Permission

    target = UserFactory()
    client = logged_in(moderator)
    # The list and the page: read-only (no input for any field).
    assert client.get(USERS).status_code == 200
    page = client.get(f"{USERS}{target.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="is_superuser"' not in html and 'name="username"' not in html
    assert 'href="../password/"' not in html
    _base, form = _change_form_data(superuser, target)
    assert {"is_superuser", "is_staff", "groups", "user_permissions", "username"} <= set(
        form.fields)
    changes = {
        "is_superuser": "on", "is_staff": "on", "is_active": None,
        "groups": [Group.objects.get(name="Moderators").pk],
        "user_permissions": [Permission.objects.get(codename="change_user").pk],
        "username": "taken-over", "email": "mine@example.org", "first_name": "x",
        "last_name": "y", "language": "fr", "timezone": "Europe/Paris", "notify_email": None,
    }
    for name in form.fields:
        for who in (target, moderator):
            before = _snapshot(who)
            data, _form = _change_form_data(superuser, who)
            value = changes.get(name, "changed")
            if value is None:
                data.pop(name, None)
            else:
                data[name] = value
            answer = client.post(f"{USERS}{who.pk}/change/", data)
            assert answer.status_code == 403, (name, answer.status_code)
            assert _snapshot(who) == before, name
    # The password form, adding and deleting users, the groups' admin: refused.
    for who in (target, moderator):
        assert client.get(f"{USERS}{who.pk}/password/").status_code == 403
        posted = client.post(f"{USERS}{who.pk}/password/",
                             {"password1": "Another-pass-77", "password2": "Another-pass-77",
                              "usable_password": "true"})
        assert posted.status_code == 403
        assert get_user_model().objects.get(pk=who.pk).check_password(PASSWORD)
        assert client.post(f"{USERS}{who.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{USERS}add/").status_code == 403
    assert client.post(f"{USERS}add/", {"username": "new", "password1": "Another-pass-77",
                                        "password2": "Another-pass-77"}).status_code == 403
    assert client.get("/admin/auth/group/").status_code == 403
    assert not get_user_model().objects.filter(username="new").exists()
    moderator.refresh_from_db()
    assert not moderator.is_superuser


def test_moderators_still_suspend_through_the_action(moderator):
    target = UserFactory()
    answer = logged_in(moderator).post(USERS, {
        "action": "suspend_users", "_selected_action": [target.pk], "reason": "abuse",
        "days": "3", "index": "0"})
    assert answer.status_code == 302
    target.refresh_from_db()
    assert target.suspended_until is not None and target.moderation_reason == "abuse"


def test_a_superuser_still_edits_users(superuser):
    target = UserFactory()
    data, _form = _change_form_data(superuser, target)
    data["is_staff"] = "on"
    answer = logged_in(superuser).post(f"{USERS}{target.pk}/change/", data)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    target.refresh_from_db()
    assert target.is_staff
