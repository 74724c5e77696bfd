"""Moderators see users but do not change them in the admin: they act on accounts only through
the moderation actions (suspend, ban, lift); only a superuser edits privileges or passwords."""

from django.db import migrations


def view_only(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="Moderators").first()
    if group is None:
        return
    group.permissions.remove(*Permission.objects.filter(
        content_type__app_label="accounts", codename__in=["change_user", "add_user",
                                                          "delete_user"]))


def back(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="Moderators").first()
    if group is not None:
        group.permissions.add(*Permission.objects.filter(
            content_type__app_label="accounts", codename="change_user"))


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0002_moderators_group"),
    ]
    operations = [migrations.RunPython(view_only, back)]
