"""Puzzles (issue 14, point 3): generated from engine-analysed games (`generate`, judged by `verify`,
themed by `themes`), played through the trainer's API (`service`, `solution`, `rating`), shipped as a
starter set (`starter`, `data/`), made and counted by `shashki puzzles` (`cli`).

Nothing is imported here, so that the command line and the generator's worker processes load only what
they use."""
