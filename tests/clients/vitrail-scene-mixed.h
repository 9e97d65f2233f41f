/*
 * Geometry of vitrail-scene-mixed (surface-local logical pixels), shared
 * with tests/test_scene.c, which probes the screenshot's pixels with it.
 */
#ifndef VITRAIL_TESTS_CLIENTS_VITRAIL_SCENE_MIXED_H
#define VITRAIL_TESTS_CLIENTS_VITRAIL_SCENE_MIXED_H

#define MIXED_WIDTH 320
#define MIXED_HEIGHT 240
#define MIXED_MAIN_COLOR 0x99204080 // premultiplied: blue at alpha 0.6
#define MIXED_BELOW_DARK 0xff108040 // checkerboard colours
#define MIXED_BELOW_LIGHT 0xffe8f4e8
#define MIXED_ABOVE_DARK 0xff303070 // stripe colours
#define MIXED_ABOVE_LIGHT 0xffffd040
#define MIXED_CARD_COLOR 0xffffffff
#define MIXED_BELOW_X (-40)
#define MIXED_BELOW_Y 120
#define MIXED_BELOW_W 200
#define MIXED_BELOW_H 160
#define MIXED_ABOVE_X 220
#define MIXED_ABOVE_Y 20
#define MIXED_ABOVE_W 120
#define MIXED_ABOVE_H 80
#define MIXED_CARD_X 20
#define MIXED_CARD_Y 40
#define MIXED_CARD_W 260
#define MIXED_CARD_H 140
#define MIXED_RING 48

#endif
