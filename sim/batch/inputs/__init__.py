"""What a study fights: its scenario or campaign, their files and paths, its seeds, its folder."""
