"""What the installed rulesets offer: their listing, scenarios, new, check-ruleset and odds."""
