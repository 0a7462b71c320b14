"""Site accounts: Django's auth views under /accounts/, the member's home (clubs, player
records, API tokens) and the page that accepts an invitation."""
