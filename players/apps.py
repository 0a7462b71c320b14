from __future__ import annotations

from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Django's own user model, its admin and createsuperuser: the look-alike check is
        # put on the username field's validators (the list the forms and the command run;
        # not the field's definition, so no migration), not on each form one by one.
        from django.contrib.auth import get_user_model
        from django.db.models import Field

        from players.services.usernames import username_not_look_alike

        user_model = get_user_model()
        field = user_model._meta.get_field(user_model.USERNAME_FIELD)
        assert isinstance(field, Field)
        if username_not_look_alike not in field.validators:
            field.validators.append(username_not_look_alike)
        # ``field__any=[...]`` (players/lookups.py), for lookups of thousands of values.
        from players import lookups  # noqa: F401
