"""/accounts/: sign in and out, passwords, the member's home, tokens, invitations and
claims of player records.

The auth views are Django's own, with the site's templates (``accounts/...``, not
``registration/...``: the admin renders that name for its own password change)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy
from django.utils.translation import gettext_lazy as _

from ratings_site.accounts import claims, notifications, views

urlpatterns = [
    path("", views.member_home, name="account-home"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="accounts/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("password_change_done"),
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/message.html",
            extra_context={
                "message": _("Your password is changed. Every API token you had is revoked."),
                "link_url": reverse_lazy("account-home"),
                "link_text": _("Your account"),
            },
        ),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(
            template_name="accounts/password_reset.html",
            email_template_name="accounts/password_reset_email.txt",
            subject_template_name="accounts/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/message.html",
            extra_context={
                "message": _(
                    "If an account has that email address, a link to choose a new "
                    "password is on its way."
                ),
                "link_url": reverse_lazy("login"),
                "link_text": _("Log in"),
            },
        ),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html"
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/message.html",
            extra_context={
                "message": _("Your password is set, and your old API tokens are revoked."),
                "link_url": reverse_lazy("login"),
                "link_text": _("Log in"),
            },
        ),
        name="password_reset_complete",
    ),
    path("clubs/new/", views.club_create, name="club-create"),
    path(
        "invitations/mine/<int:invitation_id>/accept/",
        views.invitation_accept_mine,
        name="invitation-accept-mine",
    ),
    path("invitations/<str:secret>/", views.invitation_accept, name="invitation-accept"),
    # The club and the player in the path, as on their pages (a club's archive copy
    # answers the same pages with its own).
    path(
        "claims/clubs/<slug:club>/players/<int:player_id>/",
        claims.claim_create,
        name="claim-create",
    ),
    path("claims/<int:claim_id>/decide/", claims.claim_decide, name="claim-decide"),
    path("tokens/", views.token_create, name="token-create"),
    path("emails/", notifications.rating_emails_choose, name="rating-emails"),
    path("unsubscribe/<str:token>/", notifications.unsubscribe, name="unsubscribe"),
    path("tokens/<str:digest>/revoke/", views.token_revoke, name="token-revoke"),
]
