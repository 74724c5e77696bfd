"""Account pages beside allauth's: the profile (preferences and vacations), and the language
switcher that remembers a logged-in user's choice."""

from __future__ import annotations

import zoneinfo

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from . import vacations
from .models import VACATION_DAYS_PER_YEAR, User, Vacation


@require_POST
def set_language(request):
    language = request.POST.get("language")
    user = request.user
    if (user.is_authenticated and language in {code for code, _n in settings.LANGUAGES}
            and user.language != language):
        user.language = language
        user.save(update_fields=["language"])
    return django_set_language(request)


class PreferencesForm(forms.ModelForm):
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=[])

    class Meta:
        model = User
        fields = ["language", "notify_email", "timezone"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = [(z, z) for z in sorted(
            zoneinfo.available_timezones()) if "/" in z or z == "UTC"]


class VacationForm(forms.Form):
    start = forms.DateField(label=gettext_lazy("First day"),
                            widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=gettext_lazy("Last day"),
                          widget=forms.DateInput(attrs={"type": "date"}))


@login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    user = request.user
    prefs = PreferencesForm(instance=user)
    vacation = VacationForm()
    if request.method == "POST":
        if request.POST.get("form") == "preferences":
            prefs = PreferencesForm(request.POST, instance=user)
            if prefs.is_valid():
                prefs.save()
                messages.success(request, _("Your preferences are saved."))
                return redirect("profile")
        elif request.POST.get("form") == "vacation":
            vacation = VacationForm(request.POST)
            if vacation.is_valid():
                try:
                    vacations.declare(user, vacation.cleaned_data["start"],
                                      vacation.cleaned_data["end"])
                except vacations.VacationError as exc:
                    vacation.add_error(exc.field if exc.field in vacation.fields else None,
                                       exc.message)
                else:
                    messages.success(request, _("Your vacation is saved: your deadlines will "
                                                "wait for you."))
                    return redirect("profile")
        elif request.POST.get("form") == "cancel":
            try:
                found = vacations.cancel(user, int(request.POST.get("vacation", "0")))
            except (ValueError, vacations.VacationError) as exc:
                messages.error(request, getattr(exc, "message", _("No such vacation.")))
            else:
                if found:
                    messages.success(request, _("That vacation is cancelled."))
            return redirect("profile")
    today = vacations.today_for(user)
    upcoming = Vacation.objects.filter(user=user, end__gte=today)
    used = sum(v.days for v in Vacation.objects.filter(user=user, start__year=today.year))
    return render(request, "account/profile.html", {
        "prefs": prefs, "vacation": vacation, "upcoming": upcoming, "today": today,
        "allowance": VACATION_DAYS_PER_YEAR, "used": used})
