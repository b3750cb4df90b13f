"""Test-only games: small rule sets that exercise parts of the engine contract no built-in game
uses yet (simultaneous joint actions with hidden commitments). Never registered outside tests."""
