"""The profile page: the viewer's preferences (language, emails, time zone), their vacations
(declared, cancelled; the year's allowance) and the players whose chat messages they muted."""

from __future__ import annotations

import zoneinfo

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.models import VACATION_DAYS_PER_YEAR, User, Vacation
from games.core import selectors, services
from games.core.errors import ApplicationError, text_of
from games.webpush import service as push_service
from games.webpush import subscriptions


class PreferencesForm(forms.ModelForm):
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=[])

    class Meta:
        model = User
        fields = ["language", "notify_email", "notify_chat_digest", "timezone"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = [(z, z) for z in sorted(
            zoneinfo.available_timezones()) if "/" in z or z == "UTC"]


class PushPreferencesForm(forms.ModelForm):
    """What the user's devices are told (Web Push), each kind on its own."""

    class Meta:
        model = User
        fields = ["push_decisions", "push_reminders", "push_games"]
        labels = {"push_decisions": gettext_lazy("A decision awaits me"),
                  "push_reminders": gettext_lazy("My deadline is near"),
                  "push_games": gettext_lazy("A game of mine starts or ends")}


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
    push_prefs = PushPreferencesForm(instance=user)
    vacation = VacationForm()
    if request.method == "POST":
        if request.POST.get("form") == "preferences":
            prefs = PreferencesForm(request.POST, instance=user)
            if prefs.is_valid():
                prefs.save()
                messages.success(request, _("Your preferences are saved."))
                return redirect("profile")
        elif request.POST.get("form") == "push_prefs":
            push_prefs = PushPreferencesForm(request.POST, instance=user)
            if push_prefs.is_valid():
                push_prefs.save()
                messages.success(request, _("Your preferences are saved."))
                return redirect(reverse("profile") + "#push")
        elif request.POST.get("form") == "push_remove":
            try:
                subscriptions.remove(user, request.POST.get("device"))
            except ApplicationError as exc:
                messages.error(request, exc.text())
            else:
                messages.success(request, _("That device gets no more notifications."))
            return redirect(reverse("profile") + "#push")
        elif request.POST.get("form") == "vacation":
            vacation = VacationForm(request.POST)
            if vacation.is_valid():
                try:
                    services.declare_vacation(user, vacation.cleaned_data["start"],
                                              vacation.cleaned_data["end"])
                except ApplicationError as exc:
                    fields = exc.extra.get("fields") or {}
                    field = next(iter(fields), None)
                    vacation.add_error(field if field in vacation.fields else None, exc.text())
                else:
                    messages.success(request, _("Your vacation is saved: your deadlines will "
                                                "wait for you."))
                    return redirect("profile")
        elif request.POST.get("form") == "unmute":
            try:
                services.chat.unmute(user, request.POST.get("username", ""))
            except ApplicationError as exc:
                messages.error(request, text_of(exc))
            else:
                messages.success(request, _("You see %(name)s's table chat messages again.")
                                 % {"name": request.POST.get("username", "")})
            return redirect("profile")
        elif request.POST.get("form") == "cancel":
            try:
                services.cancel_vacation(user, int(request.POST.get("vacation", "0")))
            except ValueError:
                messages.error(request, _("No such vacation."))
            except ApplicationError as exc:
                messages.error(request, exc.text())
            else:
                messages.success(request, _("That vacation is cancelled."))
            return redirect("profile")
    today = selectors.today_for(user)
    upcoming = Vacation.objects.filter(user=user, end__gte=today)
    used = sum(v.days for v in Vacation.objects.filter(user=user, start__year=today.year))
    return render(request, "account/profile.html", {
        "prefs": prefs, "vacation": vacation, "upcoming": upcoming, "today": today,
        "allowance": VACATION_DAYS_PER_YEAR, "used": used,
        "chat_mutes": services.chat.mutes_of(user),
        # Web Push (games/web/push.py): not offered while the site has no VAPID keys.
        "push_enabled": push_service.enabled(), "push_key": push_service.public_key(),
        "push_devices": subscriptions.devices_of(user), "push_prefs": push_prefs,
        "push_next": reverse("profile") + "#push"})
