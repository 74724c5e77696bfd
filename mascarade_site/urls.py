from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import web as accounts_web
from games.api.errors import api_not_found
from games.web import lobby, profile

from . import views

urlpatterns = [
    # The API first: no other route starts with "api/", and its requests (most of the traffic)
    # then skip the site's patterns.
    path("api/v1/", include("games.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"),
         name="api-docs"),
    # The written contract, docs/api/ (its README.md the entry), as plain text.
    path("api/docs/contract/", views.api_contract, name="api-contract"),
    path("api/docs/contract/<str:name>", views.api_contract, name="api-contract-page"),
    # Any other path under /api/ answers a JSON 404 (whatever DEBUG says).
    re_path(r"^api/", api_not_found),
    path("", lobby.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("accounts/profile/", profile.profile, name="profile"),
    path("accounts/", include("allauth.urls")),
    # Inbound mail from the providers' webhooks (django-anymail; games/mail/providers.py).
    path("anymail/", include("anymail.urls")),
    path("", include("games.web.urls")),
    path("i18n/setlang/", accounts_web.set_language, name="set_language"),
]

handler404 = "games.api.errors.handler404"
handler500 = "games.api.errors.handler500"
