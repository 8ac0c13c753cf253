"""Five Crowns' house rules, one plugin module each (DECISIONS.md §1.5)."""
