"""The Moderators group and its permissions (moderators are not superusers)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = {
    "games": ["view_game", "change_game", "view_seat", "view_moverecord",
              "view_pendingdecision", "view_notification"],
    "accounts": ["view_user", "change_user"],
    "moderation": ["view_moderationlog", "view_report", "change_report"],
}


def create_group(apps, schema_editor):
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name="Moderators")
    for app, codenames in PERMISSIONS.items():
        for codename in codenames:
            group.permissions.add(Permission.objects.get(content_type__app_label=app,
                                                         codename=codename))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Moderators").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0001_initial"),
        ("games", "0004_seat_pause_request"),
        ("accounts", "0004_moderation_fields"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_group, remove_group)]
