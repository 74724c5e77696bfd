"""A report may be about a chat message; moderators see the chat in the admin."""

import django.db.models.deletion
from django.contrib.auth.management import create_permissions
from django.db import migrations, models

#: What moderators get to see of the table chat in the admin (they hide messages through the
#: moderation actions, never by editing a row).
PERMISSIONS = {"games": ["view_chatmessage", "view_chathide"]}


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
        ('games', '0013_table_chat'),
        ('moderation', '0004_append_only_without_escape'),
    ]

    operations = [
        migrations.AddField(
            model_name='report',
            name='message',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='reports', to='games.chatmessage', verbose_name='chat message'),
        ),
        migrations.RunPython(grant, revoke),
    ]
