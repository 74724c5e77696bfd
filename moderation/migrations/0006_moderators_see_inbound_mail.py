"""Moderators see the inbound mail in the admin, read only (games.InboundMessage)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = {"games": ["view_inboundmessage"]}


def grant(apps, schema_editor):
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="Moderators").first()
    if group is None:
        return
    for app, codenames in PERMISSIONS.items():
        group.permissions.add(*Permission.objects.filter(content_type__app_label=app,
                                                         codename__in=codenames))


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="Moderators").first()
    if group is not None:
        for app, codenames in PERMISSIONS.items():
            group.permissions.remove(*Permission.objects.filter(
                content_type__app_label=app, codename__in=codenames))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0014_mail_play"),
        ("moderation", "0005_report_message"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
