"""All Fives' house rules, one plugin module each (DECISIONS.md section 2.3)."""
