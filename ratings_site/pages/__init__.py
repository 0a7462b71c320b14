"""The public pages: the calculator and the club pages (lists, players, period reports).

They join both apps (a player page shows ratings and games), so they live on the top floor.
"""
