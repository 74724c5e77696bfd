"""Name the django.contrib.sites Site after the service (allauth's mails use it), from SITE_URL."""

from urllib.parse import urlsplit

from django.conf import settings
from django.db import migrations


def name_site(apps, schema_editor):
    Site = apps.get_model("sites", "Site")
    domain = urlsplit(settings.SITE_URL).netloc or "127.0.0.1:8000"
    Site.objects.update_or_create(pk=settings.SITE_ID,
                                  defaults={"domain": domain, "name": "Mascarade Online"})


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("sites", "0002_alter_domain_unique"),
    ]

    operations = [migrations.RunPython(name_site, migrations.RunPython.noop)]
