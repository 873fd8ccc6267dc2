/* tui.h - the interactive stepper. */
#ifndef ATTNSCOPE_TUI_H
#define ATTNSCOPE_TUI_H

struct cli;

/* Runs the stepper until q; returns the exit status. */
int tui_run(struct cli *c);
/* render --view stepper: the stepper's screen after c->keys, drawn headless
 * (--width × --height, --format text|ansi|svg) to stdout; the exit status. */
int tui_screen(struct cli *c);

#endif
