"""Site-wide middleware: request bodies larger than the limits are refused before anyone reads
them (:class:`BodySizeLimitMiddleware`); the Content-Security-Policy header, as django-csp
writes it, built once (:class:`CSPMiddleware`); Django's locale middleware without the look-ups
of a language in the path that no URL of this site has (:class:`LocaleMiddleware`).

Django refuses a form body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when ``request.POST`` or
``request.body`` is read, and DRF's parsers read ``request.stream`` with no limit at all: an
anonymous 100 MB JSON body was parsed. Here the ``Content-Length`` is checked first: over
``API_MAX_BODY_BYTES`` under ``/api/``, over ``MAIL_WEBHOOK_MAX_BODY_BYTES`` for a provider's
inbound mail under ``/anymail/``, over ``PAGE_MAX_BODY_BYTES`` elsewhere, the answer
is 413 (the contract's JSON error on the API) and the body is never read. A body without a
length (``Transfer-Encoding: chunked``) is not read by Django's WSGI request at all, and the
API's parser reads at most its limit (``games/api/parsers.py``).
"""

from __future__ import annotations

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse, JsonResponse
from django.middleware import locale
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from mascarade_site import perf


class BodySizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        api = request.path.startswith("/api/")
        if api:
            limit = settings.API_MAX_BODY_BYTES
        elif request.path.startswith("/anymail/"):
            limit = settings.MAIL_WEBHOOK_MAX_BODY_BYTES
        else:
            limit = settings.PAGE_MAX_BODY_BYTES
        if length > limit:
            if api:
                return JsonResponse({"code": "too_large",
                                     "detail": f"The body is larger than {limit} bytes."},
                                    status=413)
            return HttpResponse(_("This request is too large."), status=413,
                                content_type="text/plain; charset=utf-8")
        return self.get_response(request)


#: What a view's decorators of django-csp set on its response to change the policy.
_POLICY_CHANGES = ("_csp_config", "_csp_update", "_csp_replace",
                   "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")
#: The settings the two policies are built from.
_POLICY_SETTINGS = ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY")

#: ``(header, the response's exemption attribute, setting, policy)`` of the two policies as
#: django-csp builds them from the settings (``None``: to build again).
_built: list[tuple[str, str, str, str]] | None = None


@receiver(setting_changed, dispatch_uid="mascarade_site.middleware.csp")
def _policy_setting_changed(setting: str, **kwargs) -> None:
    global _built
    if setting in _POLICY_SETTINGS:
        _built = None


def _policies() -> list[tuple[str, str, str, str]]:
    global _built
    if _built is None:
        _built = [(HEADER, "_csp_exempt", "CONTENT_SECURITY_POLICY", build_policy()),
                  (HEADER_REPORT_ONLY, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY",
                   build_policy(report_only=True))]
    return _built


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware, with the policies built once per process (perf's ``csp_once``)
    for the responses that change nothing of them: no nonce asked for, none of django-csp's
    decorators on the view; that is every response of this site, whose policy is the settings'
    alone. django-csp builds them again for each response (``build_policy``: a tenth of a game
    read's instructions, ``bench/api_instr.py``); any other response, and every response with
    ``PERF_OFF=csp_once``, goes its way. The headers written are the same either way
    (``tests/web/test_content_security_policy.py``)."""

    def process_response(self, request, response):
        if (not perf.on("csp_once") or getattr(request, "_csp_nonce", None) is not None
                or any(getattr(response, name, None) is not None for name in _POLICY_CHANGES)):
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:
            return response  # (django-csp leaves the debug pages alone)
        for header, exempt, setting, policy in _policies():
            if not policy or header in response or getattr(response, exempt, False) is not False:
                continue
            prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES")
            if not prefixes or not request.path_info.startswith(tuple(prefixes)):
                response[header] = policy
        # (as django-csp: a nonce asked for after the header was written is an error)
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


class LocaleMiddleware(locale.LocaleMiddleware):
    """Django's, without what it does for URLs prefixed by a language (``i18n_patterns``) where
    the URLs have no such prefix, as this site's (its language comes from the account, the
    language cookie or the browser): Django looks for a language in the path twice a request
    all the same and throws the answer away, and each look at an API path costs the most, since
    ``/api/`` reads as the language ``api``, whose refusal its cache does not keep. With
    ``i18n_patterns`` in the URLs, or ``PERF_OFF=locale_path``, Django's own. The language
    activated and the headers written are Django's (``tests/web/test_languages.py``)."""

    def _prefixed(self, request) -> bool:
        urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
        return not perf.on("locale_path") or is_language_prefix_patterns_used(urlconf)[0]

    def process_request(self, request):
        if self._prefixed(request):
            return super().process_request(request)
        translation.activate(translation.get_language_from_request(request, check_path=False))
        request.LANGUAGE_CODE = translation.get_language()
        return None

    def process_response(self, request, response):
        if self._prefixed(request):
            return super().process_response(request, response)
        language = translation.get_language()
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", language)
        return response
