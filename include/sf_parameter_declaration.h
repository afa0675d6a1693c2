/* A model parameter as a physics declares it in its folder: the job
 * reader, the model builder and the model output know a parameter only
 * by this. A physics' parameters are indexed by their position in its
 * declaration (sf_physics_declaration.param), which is also the order of
 * the job's values (sf_model_config) and of the model's arrays (sf_model). */
#ifndef SF_PARAMETER_DECLARATION_H
#define SF_PARAMETER_DECLARATION_H

/* The most parameters a physics may take. */
enum { SF_MAX_PARAMS = 8 };

/* How a model file's samples reach the grid's points: as model.interpolation
 * says (linear or nearest), or always from the nearest sample (a value that
 * means nothing between two samples, such as a rock type). */
typedef enum { SF_RESAMPLE_AS_MODEL, SF_RESAMPLE_NEAREST } sf_parameter_resampling;

typedef struct {
    const char *name;      /* the YAML key ("vp"); also <name>_range, model.paths.<name>
                              and its dataset in model files and the model output */
    const char *unit;      /* for messages: "m/s", "kg/m^3", "degrees"; "" when dimensionless */
    const char *values;    /* what messages call its values: "velocities", "densities" */
    double limits[2];      /* any value a job may give: homogeneous, layers, <name>_range */
    double range[2];       /* the values a model file may hold unless <name>_range says */
    double typical;        /* of a common rock: the medium bench and the slab cut time */
    sf_parameter_resampling resampling;
} sf_parameter_declaration;

#endif
